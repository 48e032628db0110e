<%@ WebService Class="EchoService" %>
