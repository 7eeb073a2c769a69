"""The platform's stores: the platform database, the direct psycopg pools and the one retry policy."""
