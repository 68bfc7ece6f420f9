"""The package version, written into model files and reports."""

__version__ = "0.1.0"
