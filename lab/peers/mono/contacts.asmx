<%@ WebService Class="ContactsService" %>
