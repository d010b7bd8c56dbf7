"""Request and response models of the menus plugin (the wire contract), one module per area."""
