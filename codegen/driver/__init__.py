"""Driving the stages: one spec through every stage in memory (pipeline), many specs with cache hits and a fork pool (batch)."""
