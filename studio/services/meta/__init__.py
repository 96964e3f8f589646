"""Meta-evaluation: comparing label sets (τ, κ, α, alignment, frames, score scales, the review queue)."""
