"""What a scorer run is given, and how scorers read it.

- :mod:`~scorekit.inputs.messages`: input and output shapes (text, chat messages, Mastra agent
  messages) and the text taken out of them;
- :mod:`~scorekit.inputs.message_validation`: malformed messages refused, naming the message;
- :mod:`~scorekit.inputs.tool_calls`: the tool calls recorded in an output;
- :mod:`~scorekit.inputs.trajectories`: agent trajectories in Mastra's shapes;
- :mod:`~scorekit.inputs.retrieval_context`: where a RAG scorer's context pieces come from.
"""

from __future__ import annotations

__all__: list[str] = []  # nothing re-exported: import from the modules named above
