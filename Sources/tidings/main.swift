print("tidings")
