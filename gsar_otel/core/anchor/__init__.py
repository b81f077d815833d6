"""Typed anchors, one module per concept; :mod:`gsar_otel.core.anchors` is their public face.

- :mod:`.model`: what an anchor is (:class:`~.model.Anchor`), its kinds and how two agree.
- :mod:`.words`: the vocabulary anchors are read and compared with: months, units, zones,
  qualifiers, the words that make a number an HTTP status, a port or a host, Kubernetes kinds.
- :mod:`.scan`: reading a text into anchors in one linear pass: its tokens and quoted spans, the
  grammar of one token, the anchors written over several tokens, keys and qualifiers.
- :mod:`.fractions`: shares in words read as percentages ("more than half" is over 50%).
- :mod:`.units`: amounts in units: data sizes in bytes, durations written in parts as one.
- :mod:`.times`: times of day and dates as comparison keys, to the precision written.
- :mod:`.compare`: how an evidence anchor stands to a claim's, one pair at a time or from an
  index of many.
- :mod:`.derived`: numbers a claim states that the cited items make rather than hold: eras,
  ages and spans of years, differences, ranges.

Each module imports only those listed before it.
"""
