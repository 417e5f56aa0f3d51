"""Each game's rules (readable Python) and its compiled search; no I/O, no device."""
