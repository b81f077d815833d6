"""The records judge (``--judge records``): evidence read once into records, typed
verification with three outcomes (verified, contradicted, unverified), rules as data."""
