from xpg.cli import entry_point

entry_point()
