"""The ``io.modelcontextprotocol/tasks`` extension (SEP-2663) on the server.

:mod:`.manager` runs tools as tasks and answers ``tasks/*``; :mod:`.store` keeps the task
records (memory or Redis); :mod:`.notify` sends their ``notifications/tasks``.
"""
