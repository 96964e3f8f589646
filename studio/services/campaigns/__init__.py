"""Assessment campaigns with the LLM in the loop: plan, grades, progress, report and the walk (session)."""
