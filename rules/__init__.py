"""DocGate's deterministic layer: pure Python, no Django imports."""
