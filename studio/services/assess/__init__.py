"""Assessment campaigns with the LLM in the loop: plan, grades, progress and what the LLM did."""
