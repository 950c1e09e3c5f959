"""Models an organisation trains from its own data (ticket classifier, safety model), and which is current."""
