"""Test banks (exam questions, nuggets) and the document scores derived from their item grades."""
