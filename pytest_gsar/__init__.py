"""pytest-gsar: fail CI when the grounding of AI-agent answers regresses."""
