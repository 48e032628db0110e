<%@ WebService Class="InteropService" %>
