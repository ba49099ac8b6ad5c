"""Mazzo, the server: the rules engine (``mazzo.engine``), the gRPC server and REST
gateway (``mazzo.service``) and the code generated from proto/ (``mazzo.v1``)."""
