"""The ``lan-demon`` commands, one module each (``host``, ``join``, ``play``, …), every one with
``HELP``, ``DESCRIPTION``, ``add_arguments(parser)`` and ``run(args) -> int``; the helpers they
share sit in modules named after what they hold (``errors``, ``options``, ``prompts``, ``lan``,
``serve``, ``host_secrets``, ``resume``, ``results``, ``local_table``). :mod:`lan_demon.cli`
assembles the parser from them and dispatches. Commands import whatever they need; nothing
imports a command.
"""
