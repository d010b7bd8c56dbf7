"""The panel's facets other plugins ask for through their hooks (:mod:`subsvc.panel`),
implemented over the client: one module per hook, imported only when the hook is called.
The client's errors are the port's :class:`subsvc.panel.PanelError`, so they pass through."""
