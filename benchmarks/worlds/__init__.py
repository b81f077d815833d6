"""Generated worlds the benchmarks and tests judge: synthetic incident cases with true claim
labels (``synthetic*``) and the realistic incident benchmark's evidence sets and answers
(``incident*``). Development code: it is not part of the installed package."""
