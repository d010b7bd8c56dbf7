"""Core's own parts, registered as plugins through the same hooks as everything else."""
