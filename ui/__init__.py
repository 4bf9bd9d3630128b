"""Qt widgets only. Everything they show comes from `engine.service.FlashbackService`."""
