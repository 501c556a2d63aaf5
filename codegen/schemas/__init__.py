"""What each JSON Schema keyword becomes: the wire and model documents, exactness (what the models cannot express), schema walkers."""
