"""Learning a device and game: builds, stores and loads reading profiles."""
