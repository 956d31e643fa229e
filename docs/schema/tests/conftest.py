import sys
from pathlib import Path

SCHEMA_DIR = Path(__file__).resolve().parents[1]

if str(SCHEMA_DIR) not in sys.path:
    sys.path.insert(0, str(SCHEMA_DIR))
