"""pytest hooks of the gsar plugin."""
