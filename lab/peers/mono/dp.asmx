<%@ WebService Class="DpService" %>
