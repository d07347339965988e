"""The contract of each port, held by its fake and by every real adapter alike."""
