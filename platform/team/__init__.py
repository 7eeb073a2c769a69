"""Team collaboration area: Workspace, members, roles and invitations."""
