"""The tiered judge: the offline records engine first, a model only for what it leaves
unverified (:mod:`.judge`), and the offline second opinion on model-grounded claims
(:mod:`.dispute`)."""
