"""Everything that touches the phone or the person: ADB link, loop, guide, autoplay, CLI."""
