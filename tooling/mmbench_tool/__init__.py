"""Tooling behind ./mmbench; never goes upstream."""
