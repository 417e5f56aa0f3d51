"""A virtual Android phone that speaks the ADB device protocol and runs the games."""
