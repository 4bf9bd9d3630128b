"""Qt widgets only. Everything they show comes from the engine's one surface, `engine.api.Flashback`."""
