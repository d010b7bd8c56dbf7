"""subsvc plugin `menus`: the bot's main menu, its layout constructor and the cabinet's menu."""

__version__ = "0.1.0"
