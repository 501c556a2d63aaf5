"""Skills on the client (the Skills extension): list skills, load them, verify every file.

==================  ==============================================================
``calls``           the calls (``list_skills``, ``load_skill``...), the records they
                    return and the verification errors
==================  ==============================================================

An optional feature (``client/features.py``): ``ClientBase`` and ``SyncClientBase`` import it
when one of their skill methods is called.  Nothing is re-exported here: import from the module.
"""
