"""Meta-evaluation: comparing label sets, prompt sensitivity, robustness probes, embedding judge and FD@k."""
