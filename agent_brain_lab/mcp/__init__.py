"""The brain for AI agents over the Model Context Protocol.

:mod:`.tools` holds the tools (no MCP SDK, no Jupyter imports); :mod:`.stdio` serves them on
stdin/stdout with the official ``mcp`` SDK (``agent-brain-lab mcp``); :mod:`.jupyter` hands them
to ``jupyter-server-mcp`` inside a Jupyter server, where they act on the server's own brain.
"""
