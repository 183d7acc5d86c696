"""One module per ``neardup`` subcommand (see neardup.cli)."""
