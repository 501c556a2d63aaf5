"""Skills on the client (the Skills extension): list skills, load them, verify every file.

==================  ==============================================================
``calls``           :class:`SkillCalls` (``list_skills``, ``load_skill``...), the records
                    they return and the verification errors
``sync``            :class:`SyncSkillCalls`, the blocking twins
==================  ==============================================================

Nothing is re-exported here: import from the module.
"""
