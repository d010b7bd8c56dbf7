"""Plugin `campaigns`: advertising deep-link campaigns."""
