"""subsvc plugin `segments`: who a broadcast reaches (target segments), and who blocked the bot.

The API other plugins use is :mod:`subsvc_segments.recipients` (``resolve``,
``iter_recipients``, ``recipients``, ``count_recipients``, ``user_ids_query``, ``Recipient``,
``Segment``) and :func:`subsvc_segments.reachability.reachability_of`.
"""

__version__ = "0.1.0"
