print("layoutctl: not yet")
