"""Evaluation metrics for DocGate's tasks (pure Python, used by `manage.py evaluate`)."""
