// Placeholder until the benchmark lands.
print("{}")
