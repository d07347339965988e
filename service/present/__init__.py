"""Results of the use cases as the wire types of ``schemas.wire``, one module per resource
beside the schema module it fills; every front end (REST, MCP, console) answers with them."""
