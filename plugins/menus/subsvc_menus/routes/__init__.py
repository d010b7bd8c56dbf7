"""The plugin's endpoints, one module per area: main menu, layout, layout buttons and rows,
click statistics, and the cabinet admin's menu and button styles."""
