"""The pipeline's stages, one module each, over the typed context in `base`; `contracts.pipeline` runs them."""
