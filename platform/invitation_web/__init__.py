"""The invitation page: /invitations/<id>/accept, the link the invitation e-mail carries."""
