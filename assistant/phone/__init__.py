"""The phone over ADB, in layers as adbutils has them: ``server`` (the adb server and its client,
listing and choosing a phone, the errors and their advice), ``device`` (one phone: shell, taps,
swipes, reconnect; ``connect``), ``screen`` (capture methods and decoding)."""
