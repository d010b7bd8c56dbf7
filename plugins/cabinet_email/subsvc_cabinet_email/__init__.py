"""subsvc plugin `cabinet_email`: e-mail registration, verification, password login, password
reset and e-mail change for the cabinet."""

__version__ = "0.1.0"
