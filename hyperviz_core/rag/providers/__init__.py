"""Model providers: the :class:`ChatModel`/:class:`Embedder` protocols and their implementations.

* :mod:`.protocols` — the two protocols, :class:`ProviderError`, usage reporting;
* :mod:`.offline` — the offline defaults (:class:`HashingEmbedder`, word tokenisation);
* :mod:`.openai_compat` — OpenAI-compatible chat/embedding clients (optional ``openai``),
  :mod:`.openai_wire` — their checks of what the server sends back;
* :mod:`.retry`, :mod:`.middleware` — retries, rate limits, usage accounting, answer cache.

A new model provider is one module here implementing the protocols of :mod:`.protocols`.
"""
