coffee bot.coffee $1
