"""Tenant databases: saved connections, URLs and their checks, the data model's preparation, pools
and stores, and the clients and policies on them (book/)."""
