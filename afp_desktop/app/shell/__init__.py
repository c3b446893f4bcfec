"""The window's assembly: the action table (every menu item, shortcut and help line in one place) and the
registry that turns it into menus."""
