ruby bot.rb $1
