"""OAuth 2.1 for the client's HTTP transport (optional; the ``oauth`` extra): the authorization flow.

==================  ==============================================================
``flow``            :class:`OAuthFlow`: the flow the HTTP transport drives on 401/403
``settings``        :class:`OAuthSettings`: what ``Client.http(url, auth=...)`` takes
``metadata``        discovery (RFC 9728 / RFC 8414) and :class:`OAuthError`
``registration``    the client id: pre-registered, metadata document or dynamic registration
``redirect``        redirect handlers (loopback browser, headless)
``grants``          grants without a user (client credentials, JWT bearer, enterprise-managed)
``exchange``        their token requests
``dpop``            DPoP proofs (RFC 9449)
``net``             checked connections (no private addresses unless allowed)
``tokens``          token storage (:class:`TokenStorage`, memory, file)
==================  ==============================================================

Nothing is re-exported here: import from the module (the public names are also on
:mod:`mcp_codegen_runtime.client`).
"""
